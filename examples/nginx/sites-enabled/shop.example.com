server {
	listen 80;
	server_name shop.example.com;
	root /var/www/shop;

	location / {
		limit_req zone=perip burst=10 nodelay;
		try_files $uri $uri/ /index.html;
	}

	location /static/ {
		expires 7d;
	}

	location = /login {
		limit_req zone=login burst=2;
		proxy_pass http://127.0.0.1:8080;
	}
}
